// Public surface of lifecycle/: re-exports only.
export {}
