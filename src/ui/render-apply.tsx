/**
 * Drives the live apply view on a terminal: folds events into the progress
 * model, redraws ten times a second for the spinner and elapsed times, and
 * ends with the summary.
 */
import type { ApplyEvent, ApplyResult } from '../applier/index.js';
import { ApplyProgress } from './apply-progress.js';
import { ApplySummary } from './apply-summary.js';
import { loadInk } from './ink.js';
import { emptyProgress, reduceProgress, type ProgressModel } from './progress-model.js';
import { summaryLines, type SummaryLine } from './summary-text.js';

export interface ApplyView {
  onEvent(event: ApplyEvent): void;
  /** Shows the summary and releases the terminal. */
  finish(result: ApplyResult): Promise<void>;
}

function View({ model, now, frame, summary }: { model: ProgressModel; now: number; frame: number; summary?: SummaryLine[] }) {
  return (
    <>
      <ApplyProgress model={model} now={now} frame={frame} />
      {summary ? <ApplySummary lines={summary} /> : null}
    </>
  );
}

export async function renderApplyProgress(stdout: NodeJS.WritableStream, verb: 'Apply' | 'Destroy'): Promise<ApplyView> {
  const { render } = await loadInk();
  let model = emptyProgress;
  let frame = 0;
  const tree = (summary?: SummaryLine[]) => <View model={model} now={performance.now()} frame={frame} summary={summary} />;
  const instance = render(tree(), { stdout: stdout as NodeJS.WriteStream, exitOnCtrlC: false, patchConsole: false });
  const ticker = setInterval(() => {
    frame++;
    instance.rerender(tree());
  }, 100);
  return {
    onEvent(event) {
      model = reduceProgress(model, event, performance.now());
      instance.rerender(tree());
    },
    async finish(result) {
      clearInterval(ticker);
      instance.rerender(tree(summaryLines(result, verb)));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
