// Public surface of did/: re-exports only.
export {}
