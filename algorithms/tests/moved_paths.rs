//! The modules that moved out of darkhex-algorithms (to darkhex-hexengine
//! and darkhex-base) are still importable from here, for one release: the
//! same items, not copies.

use std::any::TypeId;

#[test]
fn the_moved_modules_are_the_new_crates_items() {
    use darkhex_algorithms as old;
    assert_eq!(
        TypeId::of::<old::hexsolve::HexSolver<'static, 1>>(),
        TypeId::of::<darkhex_hexengine::hexsolve::HexSolver<'static, 1>>()
    );
    assert_eq!(
        TypeId::of::<old::eval::Network<1>>(),
        TypeId::of::<darkhex_hexengine::eval::Network<1>>()
    );
    assert_eq!(
        TypeId::of::<old::analyst::Budget>(),
        TypeId::of::<darkhex_hexengine::analyst::Budget>()
    );
    assert_eq!(
        TypeId::of::<old::files::FileKind>(),
        TypeId::of::<darkhex_base::files::FileKind>()
    );
    assert_eq!(
        TypeId::of::<old::shard::Shard>(),
        TypeId::of::<darkhex_base::shard::Shard>()
    );
    assert_eq!(
        TypeId::of::<old::memory::MemoryLimit>(),
        TypeId::of::<darkhex_base::memory::MemoryLimit>()
    );
    assert_eq!(
        old::bytes::readable_bytes(1536.0),
        darkhex_base::bytes::readable_bytes(1536.0)
    );
}
