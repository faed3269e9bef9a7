// tests/api/harness.ts, which the reliability scripts import, names the DOM's CryptoKey;
// tsconfig.server.json (which covers scripts/) has no DOM library, so the name is declared here.
interface CryptoKey {}
