// Who is calling and what they may do: principals and credentials, the per-request context, authorization guards,
// the API family rule, our gateway's signed principal header, and project locales. Below every layer that reads a request.
export * from './principal';
export * from './context';
export * from './authorize';
export * from './family-principal';
export * from './principal-header';
export * from './locales';
