// A worker loop's pause that another part of the process can cut short: `sleep` waits up to `ms`,
// `wake` ends the current pause, or the next one at once when no pause is running (so a wake that comes
// while the loop is busy is not lost).
export class Waker {
  private wakeUp: (() => void) | null = null;
  private woken = false;

  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
