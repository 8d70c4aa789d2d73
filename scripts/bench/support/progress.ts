// Progress of a benchmark step: a bar on a terminal, a line every few seconds otherwise (CI, a log).
import cliProgress from 'cli-progress';

export interface Progress {
  increment(by?: number): void;
  stop(): void;
}

export const progress = (task: string, total: number): Progress => {
  const bar = new cliProgress.SingleBar(
    { format: `  ${task} [{bar}] {value}/{total} {duration_formatted}`, hideCursor: true, noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    increment: (by = 1) => bar.increment(by),
    stop: () => bar.stop(),
  };
};
