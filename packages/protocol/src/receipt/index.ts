// Public surface of receipt/: re-exports only.
export {}
