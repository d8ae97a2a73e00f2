// Authentication for every host: the one entry point, tokens, API keys, the principal cache, sign-in, stream re-checks.
export { AccessWatch, type WatchedCaller } from './access-watch';
export { generateKey, hashKey, KEY_PREFIX, looksLikeKey } from './api-key-secret';
export { ApiKeyLookup } from './api-keys';
export { Authentication, createAuthentication, type AuthenticationOptions, type GatewayVouch } from './authentication';
export { clientCredentials, connectionCredentials, httpCredentials, type Credentials } from './credentials';
export { LastUsedRecorder } from './last-used';
export { hashPassword, verifyPassword } from './password';
export { ACCESS_RESOURCE_TYPES, PrincipalCache, type AccessChange, type CachedUser } from './principal-cache';
export { normalizeEmail, SignIn, type Account } from './sign-in';
export { limiterSignInThrottle, memorySignInThrottle, type SignInThrottle } from './sign-in-throttle';
export { TokenService, type TokenClaims } from './tokens';
