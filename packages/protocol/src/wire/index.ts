// Public surface of wire/: re-exports only.
export {}
