/**
 * Sign-in constants, kept free of zod so that the login screen can import them
 * without pulling the schema library into its first load.
 */
export const CAPTCHA_TTL_SECONDS = 300;
export const CAPTCHA_COOLDOWN_SECONDS = 60;
/** Spec 002: the login button's loading state ends after at most 10 seconds. */
export const LOGIN_LOADING_MAX_MS = 10_000;
