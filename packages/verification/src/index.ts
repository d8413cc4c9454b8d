// The verification engine's public surface (DESIGN.md "Verification engine").
export {};
