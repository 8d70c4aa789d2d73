// What kind of key an API key is: its level (the whole project or one account) and its type (an
// integration's key, or the project's one AI key). Its own module, so the events and the access policy
// (whose rules depend on the type) both name it without importing each other.
export type ApiKeyLevel = 'PROJECT' | 'ACCOUNT';
export type ApiKeyType = 'INTEGRATION' | 'AI';
