// Public surface of @acdp/cli.
export {}
