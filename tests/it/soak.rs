//! The bounded fault soak: the bridge under concurrent callers while a chaos loop kills, pauses, slows and garbles
//! the plugin host.
