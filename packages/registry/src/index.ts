// Public surface of @acdp/registry.
export {}
