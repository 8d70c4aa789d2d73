// The PostgreSQL advisory lock held around one account creation of a project (spec "Limits": one at a
// time per project), by the synchronous path (app/commands/createAccount.ts) and the asynchronous queue
// alike, across instances.
export const creationLock = (projectId: string): string => `create-account:${projectId}`;
