// Cargo reads [build-dependencies] only for a package with a build script;
// this one does nothing else.
fn main() {}
