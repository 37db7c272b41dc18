//! The games being played in pages, and the prepared players they share.
//! Both are bounded: the oldest game idle is dropped past [`MAX_GAMES`],
//! and a prepared player (an LP solved, a file loaded) is kept for the
//! next game against the same spec until [`MAX_PLAYERS`] others push it
//! out.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use darkhex_players::PlayerFactory;

use super::play::Session;

/// Games held at once; a page that has not moved for longest loses its game first.
pub const MAX_GAMES: usize = 2000;
/// Prepared players kept.
pub const MAX_PLAYERS: usize = 16;

type Slot = Arc<Mutex<Session>>;

#[derive(Default)]
pub struct Sessions {
    games: Mutex<HashMap<u64, (Slot, Instant)>>,
    next: AtomicU64,
    players: Mutex<Vec<(String, Arc<dyn PlayerFactory>)>>,
}

impl Sessions {
    /// Holds `session`; returns its id.
    pub fn insert(&self, session: Session) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if games.len() >= MAX_GAMES
            && let Some(oldest) = games.iter().min_by_key(|(_, (_, t))| *t).map(|(k, _)| *k)
        {
            games.remove(&oldest);
        }
        games.insert(id, (Arc::new(Mutex::new(session)), Instant::now()));
        id
    }

    pub fn get(&self, id: u64) -> Option<Slot> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.get_mut(&id).map(|(slot, used)| {
            *used = Instant::now();
            slot.clone()
        })
    }

    /// The prepared player of `key` (a game and a spec), if kept.
    pub fn player(&self, key: &str) -> Option<Arc<dyn PlayerFactory>> {
        let mut players = self.players.lock().unwrap_or_else(|e| e.into_inner());
        let i = players.iter().position(|(k, _)| k == key)?;
        // Most recently used last.
        let entry = players.remove(i);
        let factory = entry.1.clone();
        players.push(entry);
        Some(factory)
    }

    pub fn keep_player(&self, key: String, factory: Arc<dyn PlayerFactory>) {
        let mut players = self.players.lock().unwrap_or_else(|e| e.into_inner());
        players.retain(|(k, _)| *k != key);
        if players.len() >= MAX_PLAYERS {
            players.remove(0);
        }
        players.push((key, factory));
    }
}
