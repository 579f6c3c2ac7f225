// Public surface of outbound/: re-exports only.
export {}
