//! The `name(key=value,...)` syntax of game strings (OpenSpiel's), also used
//! for player specs.

use crate::error::GameError;

/// A parsed `name(key=value,...)`: the name and the parameters in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub params: Vec<(String, String)>,
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, GameError> {
        let syntax = |reason: &str| GameError::Syntax {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let t = text.trim();
        if nesting(t) > MAX_NESTING {
            return Err(syntax(&format!(
                "specs nest at most {MAX_NESTING} deep inside one another"
            )));
        }
        let (name, inner) = match t.find('(') {
            None => (t, None),
            Some(open) => {
                let body = t[open + 1..]
                    .strip_suffix(')')
                    .ok_or_else(|| syntax("expected ')' at the end"))?;
                (&t[..open], Some(body))
            }
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(syntax("expected a name such as hex or dark_hex"));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '+')
        {
            return Err(syntax(
                "a name holds letters, digits, '_', '-' and '+' only",
            ));
        }
        let mut params: Vec<(String, String)> = Vec::new();
        let body = inner.unwrap_or("");
        let items = if body.trim().is_empty() {
            Vec::new()
        } else {
            split_top_level(body)
        };
        for item in items {
            let item = item.trim();
            if item.is_empty() {
                return Err(syntax("empty parameter between commas"));
            }
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| syntax(&format!("parameter '{item}' has no '=value'")))?;
            let (k, v) = (k.trim(), v.trim());
            // Values may be specs themselves, e.g. fallback=ismcts(sims=10).
            if k.is_empty() || v.is_empty() || !balanced(v) {
                return Err(syntax(&format!("parameter '{item}' is not key=value")));
            }
            if params.iter().any(|(pk, _)| pk == k) {
                return Err(GameError::DuplicateParameter {
                    param: k.to_string(),
                    text: text.to_string(),
                });
            }
            params.push((k.to_string(), v.to_string()));
        }
        Ok(Spec {
            name: name.to_string(),
            params,
        })
    }

    /// Fails on the first parameter not in `accepted`, naming all of them.
    pub fn check_params(&self, accepted: &[&str]) -> Result<(), GameError> {
        for (k, _) in &self.params {
            if !accepted.contains(&k.as_str()) {
                return Err(GameError::UnknownParameter {
                    game: self.name.clone(),
                    param: k.clone(),
                    accepted: if accepted.is_empty() {
                        "none".to_string()
                    } else {
                        accepted.join(", ")
                    },
                });
            }
        }
        Ok(())
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn bad_value(&self, key: &str, value: &str, accepted: &str) -> GameError {
        GameError::BadValue {
            game: self.name.clone(),
            param: key.to_string(),
            value: value.to_string(),
            accepted: accepted.to_string(),
        }
    }

    /// An integer parameter within `range`, or `default` when absent.
    pub fn get_usize(
        &self,
        key: &str,
        range: std::ops::RangeInclusive<usize>,
        default: usize,
    ) -> Result<usize, GameError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse::<usize>()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    let accepted = format!("integers from {} to {}", range.start(), range.end());
                    self.bad_value(key, v, &accepted)
                }),
        }
    }

    /// A parameter that takes one of `names`, converted by `from_name`.
    pub fn get_choice<T>(
        &self,
        key: &str,
        names: &[&str],
        from_name: impl Fn(&str) -> Option<T>,
        default: T,
    ) -> Result<T, GameError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => from_name(v).ok_or_else(|| self.bad_value(key, v, &names.join(", "))),
        }
    }

    /// A floating-point parameter, or `default` when absent.
    pub fn get_f64(&self, key: &str, default: f64) -> Result<f64, GameError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| self.bad_value(key, v, "finite numbers")),
        }
    }
}

/// Splits at commas outside parentheses, keeping empty pieces.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// Specs inside specs (`pone(fallback=solver(fallback=random))`) are
/// parsed recursively: a bound keeps a hostile one from exhausting the stack.
const MAX_NESTING: usize = 16;

/// The deepest parenthesis nesting of `text`.
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for ch in text.chars() {
        match ch {
            '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Whether every parenthesis closes, in order.
fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for ch in text.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// Splits a comma-separated list of specs, leaving commas inside
/// parentheses alone: `random,mcts(sims=10,c=2)` is two specs.
pub fn split_list(text: &str) -> Vec<String> {
    split_top_level(text)
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_parameters() {
        let s = Spec::parse(" dark_hex(num_rows=2, num_cols=3 ,gameversion=adh) ").unwrap();
        assert_eq!(s.name, "dark_hex");
        assert_eq!(s.get("num_cols"), Some("3"));
        assert_eq!(s.get("gameversion"), Some("adh"));
        assert_eq!(Spec::parse("kuhn_poker").unwrap().params, vec![]);
        assert_eq!(Spec::parse("kuhn_poker()").unwrap().params, vec![]);
        let nested = Spec::parse("pone(fallback=ismcts(sims=10,c=2))").unwrap();
        assert_eq!(nested.get("fallback"), Some("ismcts(sims=10,c=2)"));
    }

    #[test]
    fn lists_split_outside_parentheses() {
        assert_eq!(
            split_list("random, mcts(sims=10,c=2),lp"),
            vec!["random", "mcts(sims=10,c=2)", "lp"]
        );
        assert_eq!(split_list(""), Vec::<String>::new());
    }

    #[test]
    fn rejects_malformed_strings() {
        for bad in [
            "",
            "hex(",
            "hex(board_size)",
            "hex(=3)",
            "hex(a=1,,b=2)",
            "(a=1)",
            "he x",
            "hex(a=1,a=2)",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad} was accepted");
        }
    }

    /// Specs are parsed recursively: without a bound, a deep one would
    /// overflow the stack (an abort, not an error).
    #[test]
    fn refuses_specs_nested_past_the_bound() {
        let nest = |depth: usize| {
            let mut s = "random".to_string();
            for _ in 0..depth {
                s = format!("pone(fallback={s})");
            }
            s
        };
        assert!(Spec::parse(&nest(MAX_NESTING)).is_ok());
        let e = Spec::parse(&nest(MAX_NESTING + 1)).unwrap_err().to_string();
        assert!(e.contains("nest at most 16 deep"), "{e}");
        let deep = format!("{}random{}", "x(a=".repeat(100_000), ")".repeat(100_000));
        assert!(Spec::parse(&deep).is_err());
    }

    /// What a user typed is quoted with its line breaks escaped, so every
    /// message stays one line.
    #[test]
    fn errors_quote_line_breaks_escaped() {
        for bad in [
            "he\nx",
            "hex(board_size=\n3,\n)",
            "hex(a\nb=1)",
            "hex(a=1,a\n=2)",
        ] {
            let e = match Spec::parse(bad) {
                Err(e) => e.to_string(),
                Ok(_) => crate::load_game(bad).unwrap_err().to_string(),
            };
            assert!(!e.contains('\n') && e.contains("\\n"), "{bad:?}: {e}");
        }
    }
}
