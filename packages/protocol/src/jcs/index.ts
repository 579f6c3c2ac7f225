// Public surface of jcs/: re-exports only.
export {}
