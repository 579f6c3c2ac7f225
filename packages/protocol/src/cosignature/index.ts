// Public surface of cosignature/: re-exports only.
export {}
