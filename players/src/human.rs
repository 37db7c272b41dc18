//! A human at a terminal: sees their own view, types moves by name.

use std::io::{BufRead, Write};

use darkhex_games::{Action, Game, Token};

use crate::player::{Player, PlayerError, PlayerView};

pub struct HumanPlayer<G: Game, R: BufRead + Send, W: Write + Send> {
    game: G,
    input: R,
    output: W,
    /// How much of the information state has been shown already.
    shown: usize,
}

impl<G: Game, R: BufRead + Send, W: Write + Send> HumanPlayer<G, R, W> {
    pub fn new(game: G, input: R, output: W) -> Self {
        HumanPlayer {
            game,
            input,
            output,
            shown: 0,
        }
    }

    /// Tells the human what they observed since they last looked.
    fn write_news(&mut self, key: &[Token]) -> Result<(), PlayerError> {
        let news: Vec<String> = key[self.shown.min(key.len())..]
            .iter()
            .map(|&t| self.game.describe_token(t))
            .collect();
        self.shown = key.len();
        if !news.is_empty() {
            writeln!(self.output, "you observed: {}", news.join(", "))?;
        }
        Ok(())
    }

    /// The news, then the board as the human knows it.
    fn show_news(&mut self, seat: usize, key: &[Token]) -> Result<(), PlayerError> {
        self.write_news(key)?;
        write!(self.output, "{}", self.game.render_info_state(seat, key))?;
        Ok(())
    }
}

impl<G: Game, R: BufRead + Send, W: Write + Send> Player for HumanPlayer<G, R, W> {
    fn name(&self) -> String {
        "human".to_string()
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        self.show_news(view.seat, view.info_key)?;
        let names: Vec<String> = view
            .legal
            .iter()
            .map(|&a| self.game.action_name(a))
            .collect();
        loop {
            write!(
                self.output,
                "player {} to move ({}), 'quit' to stop: ",
                view.seat,
                names.join(" ")
            )?;
            self.output.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                return Err(PlayerError::InputEnded);
            }
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if line == "quit" || line == "q" {
                return Err(PlayerError::Quit);
            }
            match self.game.parse_action(line) {
                Ok(a) if view.legal.contains(&a) => return Ok(a),
                Ok(a) => writeln!(
                    self.output,
                    "{} is not legal for you now; legal: {}",
                    self.game.action_name(a),
                    names.join(" ")
                )?,
                Err(e) => writeln!(self.output, "{e}")?,
            }
        }
    }

    fn game_over(&mut self, info_key: &[Token], returns: [f64; 2]) -> Result<(), PlayerError> {
        self.write_news(info_key)?;
        writeln!(
            self.output,
            "game over: returns {} / {}",
            returns[0], returns[1]
        )?;
        Ok(())
    }
}
