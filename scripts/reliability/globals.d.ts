// tests/api/harness.ts, which the reliability scripts import, names the DOM's CryptoKey;
// tsconfig.server.json (which covers scripts/) has no DOM library, so the name is declared here.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- only the name is needed, and an interface merges with the DOM's where there is one.
interface CryptoKey {}
