// Public surface of webhook/: re-exports only.
export {}
