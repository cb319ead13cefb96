/**
 * The live apply view: finished steps printed once (Ink's Static), the steps
 * in flight below them with a spinner, their elapsed time and retries, and a
 * count. A pure function of its props; renderApplyProgress drives it.
 */
import { Box, Static, Text } from 'ink';
import type { ProgressModel, LogItem } from './progress-model.js';
import { formatDuration, pastTense, progressiveTense, revealCommand } from './words.js';

export const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ApplyProgressProps {
  model: ProgressModel;
  /** Milliseconds on the same clock as RunningStep.startedAt. */
  now: number;
  /** Spinner frame counter. */
  frame: number;
}

function LogLine({ item }: { item: LogItem }) {
  switch (item.type) {
    case 'done':
      return (
        <Text>
          <Text color="green">✓</Text> {item.address} <Text color="green">{pastTense(item.action)}</Text>
          {item.id ? <Text dimColor> id={item.id}</Text> : null}
          <Text dimColor> ({formatDuration(item.durationMs)})</Text>
          {item.sealed ? <Text> · new token sealed in state: {revealCommand(item.address)}</Text> : null}
        </Text>
      );
    case 'failed':
      return (
        <Text>
          <Text color="red">✗</Text> {item.address} <Text color="red">{item.action} failed</Text>: {item.reason}
        </Text>
      );
    case 'skipped':
      return (
        <Text>
          <Text color="yellow">-</Text> {item.address} <Text dimColor>{item.action} {item.why}</Text>
        </Text>
      );
    case 'notice':
      return <Text color={item.tone === 'warning' ? 'yellow' : undefined}>{item.text}</Text>;
  }
}

export function ApplyProgress({ model, now, frame }: ApplyProgressProps) {
  const spinner = spinnerFrames[frame % spinnerFrames.length];
  return (
    <Box flexDirection="column">
      <Static items={model.log}>{(item) => <LogLine key={item.key} item={item} />}</Static>
      {model.running.map((step) => (
        <Text key={step.stepId}>
          <Text color="cyan">{spinner}</Text> {step.address} {progressiveTense(step.action)}…
          <Text dimColor> {formatDuration(Math.max(0, now - step.startedAt))}</Text>
          {step.retries > 0 ? <Text color="yellow"> (retry {step.retries}{step.lastRetry ? `: ${step.lastRetry}` : ''})</Text> : null}
        </Text>
      ))}
      {model.total > 0 && model.finished < model.total ? <Text dimColor>{model.finished}/{model.total} steps finished</Text> : null}
    </Box>
  );
}
