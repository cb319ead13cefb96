/**
 * The live apply view: finished steps printed once (Ink's Static), the steps
 * in flight below them with a spinner, their elapsed time and retries, and a
 * count. A pure function of its props; renderApplyProgress drives it.
 */
import type { ReactNode } from 'react';
import { ink } from './ink.js';
import type { ProgressModel, LogItem } from './progress-model.js';
import { formatDuration, pastTense, progressiveTense, revealCommand } from './words.js';

export const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ApplyProgressProps {
  model: ProgressModel;
  /** Milliseconds on the same clock as RunningStep.startedAt. */
  now: number;
  /** Spinner frame counter. */
  frame: number;
  /** The words that run a suggested command for the same configuration and deployment (words.ts). */
  scope?: readonly string[];
}

/** A symbol, then text that wraps under itself: continuation lines are indented past the symbol. */
function Marked({ symbol, color, children }: { symbol: string; color?: string; children: ReactNode }) {
  const { Box, Text } = ink();
  return (
    <Box>
      <Box flexShrink={0} width={symbol.length + 1}>
        <Text color={color}>{symbol}</Text>
      </Box>
      <Text>{children}</Text>
    </Box>
  );
}

/** `6 done, 1 failed, 7 skipped of 14 steps`: the words and counts of the end-of-apply summary. */
export function counterText(model: ProgressModel): string {
  const parts = [
    `${model.done} done`,
    ...(model.failed > 0 ? [`${model.failed} failed`] : []),
    ...(model.skipped > 0 ? [`${model.skipped} skipped`] : []),
  ];
  return `${parts.join(', ')} of ${model.total} steps`;
}

function LogLine({ item, scope }: { item: LogItem; scope: readonly string[] }) {
  const { Text } = ink();
  switch (item.type) {
    case 'done':
      return (
        <Marked symbol="✓" color="green">
          {item.address} <Text color="green">{pastTense(item.action)}</Text>
          {item.id ? <Text dimColor> id={item.id}</Text> : null}
          <Text dimColor> ({formatDuration(item.durationMs)})</Text>
          {item.sealed ? <Text> · new token sealed in state: {revealCommand(item.address, scope)}</Text> : null}
        </Marked>
      );
    case 'failed':
      return (
        <Marked symbol="✗" color="red">
          {item.address} <Text color="red">{item.action} failed</Text>: {item.reason}
        </Marked>
      );
    case 'skipped':
      return (
        <Marked symbol="-" color="yellow">
          {item.address}{' '}
          <Text dimColor>
            {item.action} {item.why}
          </Text>
        </Marked>
      );
    case 'notice':
      return <Text color={item.tone === 'warning' ? 'yellow' : undefined}>{item.text}</Text>;
  }
}

export function ApplyProgress({ model, now, frame, scope = [] }: ApplyProgressProps) {
  const { Box, Static, Text } = ink();
  const spinner = spinnerFrames[frame % spinnerFrames.length];
  return (
    <Box flexDirection="column">
      <Static items={model.log}>{(item) => <LogLine key={item.key} item={item} scope={scope} />}</Static>
      {model.running.map((step) => (
        <Marked key={step.stepId} symbol={spinner ?? ''} color="cyan">
          {step.address} {progressiveTense(step.action)}…<Text dimColor> {formatDuration(Math.max(0, now - step.startedAt))}</Text>
          {step.retries > 0 ? (
            <Text color="yellow">
              {' '}
              (retry {step.retries}
              {step.lastRetry ? `: ${step.lastRetry}` : ''})
            </Text>
          ) : null}
        </Marked>
      ))}
      {model.ratePerSecond !== undefined && model.finished < model.total ? (
        <Text color="yellow">Held back by the API&apos;s rate limit: about {model.ratePerSecond} requests a second</Text>
      ) : null}
      {model.total > 0 && model.finished < model.total ? <Text dimColor>{counterText(model)}</Text> : null}
    </Box>
  );
}
