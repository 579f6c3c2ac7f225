// Public surface of @acdp/control-plane.
export {}
