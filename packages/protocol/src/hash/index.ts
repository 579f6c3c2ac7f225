// Public surface of hash/: re-exports only.
export {}
