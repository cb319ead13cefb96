/**
 * The summary after an apply: the lines of summaryLines, coloured by tone.
 */
import { ink } from './ink.js';
import type { SummaryLine } from './summary-text.js';

const colors = { ok: 'green', error: 'red', warning: 'yellow', heading: undefined, plain: undefined } as const;

export function ApplySummary({ lines }: { lines: SummaryLine[] }) {
  const { Box, Text } = ink();
  return (
    <Box flexDirection="column" marginTop={1}>
      {lines.map((line, i) => (
        <Text key={i} color={colors[line.tone]} bold={line.tone === 'heading'}>
          {line.text}
        </Text>
      ))}
    </Box>
  );
}
