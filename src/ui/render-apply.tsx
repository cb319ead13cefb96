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

function View({
  model,
  now,
  frame,
  summary,
  scope,
}: {
  model: ProgressModel;
  now: number;
  frame: number;
  summary?: SummaryLine[];
  scope: readonly string[];
}) {
  return (
    <>
      <ApplyProgress model={model} now={now} frame={frame} scope={scope} />
      {summary ? <ApplySummary lines={summary} /> : null}
    </>
  );
}

/** `scope`: the words that run a suggested command for the same configuration and deployment (words.ts). */
export async function renderApplyProgress(
  stdout: NodeJS.WritableStream,
  verb: 'Apply' | 'Destroy',
  scope: readonly string[] = [],
): Promise<ApplyView> {
  const { render } = await loadInk();
  let model = emptyProgress;
  let frame = 0;
  const tree = (summary?: SummaryLine[]) => <View model={model} now={performance.now()} frame={frame} summary={summary} scope={scope} />;
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
      instance.rerender(tree(summaryLines(result, verb, scope)));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
