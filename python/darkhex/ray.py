"""Leagues and solves past one machine, as Ray tasks.

`league(definition)` plays a league's games in batches of Ray tasks and
returns what `darkhex.league` returns; its log equals the log
`darkhex league --threads 1` writes, line for line, because every game's
seeds come from its place in the schedule, never from the worker that
played it. `solve_openings(game)` solves Hex and Rex openings (or any
positions) as tasks with a time budget each, queueing the unfinished again
with larger budgets; the values equal `darkhex solve --openings`. A task
lost with a node is run again by Ray, and the driver keeps one result per
game or position, so nothing is counted twice.

Connect to a cluster with `ray.init(address=...)` first; without it, Ray
starts on this machine. Needs ray (`pip install ray`).
"""

import math

import ray

import darkhex
from darkhex import _darkhex
from darkhex.job_search import job_search, job_search_openings, move_lists, solve_job

__all__ = ["job_search", "job_search_openings", "league", "solve_openings"]


def _play_batch(tournament, base_dir, positions):
    return _darkhex._league_play(tournament, base_dir, positions)


# What solve_openings reports of a task's search.
_REPORTED = ("winner", "to_move", "winning_move", "expansions", "seconds")


def _solve_position(game, moves, time_limit, tt_mb):
    r = solve_job(game, moves, None, time_limit, tt_mb)
    return {k: r[k] for k in _REPORTED}


def _cluster_cpus():
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def league(definition, *, out=None, batch_size=None, max_retries=3, progress=None):
    """Plays the league `definition` (TOML text, a dict, or a tournament
    file's path, as for `darkhex.league`) as Ray tasks of `batch_size` games
    (default: about four batches per CPU of the cluster), each on one CPU,
    and writes the log and reports to `out` (default: a temporary
    directory). `progress(done, total)` hears of each finished batch.
    Returns a `darkhex.LeagueResult`. Relative file paths in player specs
    start at the tournament file's directory (or the current one) on every
    node: use paths that exist there.
    """
    if not ray.is_initialized():
        ray.init()
    tournament, total, base_dir = _darkhex._league_schedule(definition)
    size = batch_size or max(1, math.ceil(total / (4 * _cluster_cpus())))
    if size < 1:
        raise ValueError(f"batch_size must be at least 1, not {size}")
    play = ray.remote(num_cpus=1, max_retries=max_retries)(_play_batch)
    pending = {}
    for start in range(0, total, size):
        positions = list(range(start, min(total, start + size)))
        pending[play.remote(tournament, str(base_dir), positions)] = len(positions)
    lines, done = [], 0
    while pending:
        finished, _ = ray.wait(list(pending), num_returns=1)
        for ref in finished:
            lines.extend(ray.get(ref))
            done += pending.pop(ref)
            if progress is not None:
                progress(done, total)
    return _darkhex._league_write(tournament, lines, out)


def solve_openings(
    game,
    positions=None,
    *,
    time_limit=10.0,
    growth=4.0,
    max_time_limit=None,
    tt_mb=256,
    max_retries=3,
):
    """Solves Hex or Rex positions as Ray tasks, one CPU each. `positions`
    are move lists from the empty board (ids or names); by default, the
    openings `darkhex solve --openings` solves (one of each pair of
    180-degree images). Each task has `time_limit` seconds; a position not
    solved in its budget is queued again with `growth` times more, up to
    `max_time_limit` (default: no limit). Returns one dict per position, in
    order: its moves, the winner (None if unsolved), the player to move, a
    winning move, the search's expansions and seconds, the last budget, and
    the attempts.

    For openings, `winner == 0` is the CLI's "Black wins".
    """
    if not ray.is_initialized():
        ray.init()
    if not (time_limit > 0 and growth > 1):
        raise ValueError(
            f"time_limit must be positive and growth above 1, not {time_limit} and {growth}"
        )
    g = darkhex.load_game(str(game))
    if positions is None:
        positions = [[c] for c in darkhex.opening_cells(g)]
    moves = move_lists(g, positions)
    solve = ray.remote(num_cpus=1, max_retries=max_retries)(_solve_position)
    results = [None] * len(moves)
    pending = {}

    def submit(i, budget, attempt):
        ref = solve.remote(str(g), moves[i], budget, tt_mb)
        pending[ref] = (i, budget, attempt)

    for i in range(len(moves)):
        submit(i, time_limit, 1)
    while pending:
        finished, _ = ray.wait(list(pending), num_returns=1)
        for ref in finished:
            i, budget, attempt = pending.pop(ref)
            r = ray.get(ref)
            bigger = budget * growth
            if r["winner"] is None and (max_time_limit is None or bigger <= max_time_limit):
                submit(i, bigger, attempt + 1)
                continue
            results[i] = dict(
                moves=moves[i],
                names=[g.action_to_string(0, a) for a in moves[i]],
                time_limit=budget,
                attempts=attempt,
                **r,
            )
    return results

