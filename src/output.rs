//! Printing for the CLI: stdout writes that fail cleanly (a closed pipe ends
//! the program quietly instead of panicking), and boards laid side by side.

/// `writeln!` to stdout, returning an error instead of panicking.
macro_rules! outln {
    () => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock())?
    }};
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

pub(crate) use outln;

/// Lays out multi-line blocks next to each other, each under its title.
pub fn side_by_side(blocks: &[(&str, String)]) -> String {
    let columns: Vec<Vec<&str>> = blocks
        .iter()
        .map(|(title, body)| std::iter::once(*title).chain(body.lines()).collect())
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(|l| l.chars().count()).max().unwrap_or(0))
        .collect();
    let height = columns.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for row in 0..height {
        let mut line = String::new();
        for (col, width) in columns.iter().zip(&widths) {
            let cell = col.get(row).copied().unwrap_or("");
            line += &format!("{cell:<width$}    ");
        }
        out += line.trim_end();
        out.push('\n');
    }
    out
}
