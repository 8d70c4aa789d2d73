// async-exit-hook 2.0.1 ships no types; this is the part the embedded start uses.
declare module 'async-exit-hook' {
  interface AsyncExitHook {
    (hook: (done?: () => void) => void): void;
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  }
  const asyncExitHook: AsyncExitHook;
  export default asyncExitHook;
}
