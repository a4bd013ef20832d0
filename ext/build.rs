//! Links the extension so that it is never unloaded: a background drain
//! (session-search-engine's `drain` module) may still run on its own
//! connection after the connection that loaded the extension closed, and
//! SQLite unloads an extension when that connection closes.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
