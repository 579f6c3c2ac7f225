// Public surface of checkpoint/: re-exports only.
export {}
