"""Every docstring example of the package and of docs/python.md runs."""

import doctest
import inspect
import pathlib

import pytest

import darkhex

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def docstrings():
    found = [("darkhex", darkhex.__doc__)]
    for name in darkhex.__all__:
        obj = getattr(darkhex, name)
        if getattr(obj, "__doc__", None) and (inspect.isclass(obj) or callable(obj)):
            found.append((name, obj.__doc__))
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                doc = getattr(member, "__doc__", None)
                if doc and ">>>" in doc and not attr.startswith("__"):
                    found.append((f"{name}.{attr}", doc))
    return [(n, d) for n, d in found if d and ">>>" in d]


@pytest.mark.parametrize("name,doc", docstrings(), ids=lambda x: x if "\n" not in str(x) else "")
def test_docstring_examples_run(name, doc):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(doc, {"darkhex": darkhex}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {name} failed (output above)"


def test_every_public_function_has_an_example():
    missing = [
        n
        for n in darkhex.__all__
        if callable(getattr(darkhex, n))
        and not inspect.isclass(getattr(darkhex, n))
        and ">>>" not in (getattr(darkhex, n).__doc__ or "")
    ]
    assert missing == []


def test_the_user_guide_examples_run():
    failures, tried = doctest.testfile(
        str(DOCS), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert tried > 10 and failures == 0
