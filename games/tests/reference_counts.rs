//! Tree sizes against the facts measured with OpenSpiel in reference/openspiel.json.

use darkhex_games::analysis::{WalkOptions, tree_stats};
use darkhex_games::load_game;
use serde_json::Value;

fn reference() -> Value {
    let text = include_str!("../../reference/openspiel.json");
    serde_json::from_str(text).expect("reference/openspiel.json is valid JSON")
}

#[test]
fn every_reference_game_has_the_reference_counts() {
    let r = reference();
    let games = r["games"].as_object().unwrap();
    assert!(games.len() >= 7);
    for (name, facts) in games {
        let game = load_game(name).unwrap();
        let stats = tree_stats(&game, &WalkOptions::default()).unwrap();
        assert_eq!(
            stats.histories,
            facts["histories"].as_u64().unwrap(),
            "{name} histories"
        );
        assert_eq!(
            stats.terminals,
            facts["terminals"].as_u64().unwrap(),
            "{name} terminals"
        );
        let infosets: Vec<u64> = facts["infosets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(stats.infosets.to_vec(), infosets, "{name} infosets");
        assert!(
            stats.perfect_recall(),
            "{name}: {:?}",
            stats.recall_violation
        );
    }
}
