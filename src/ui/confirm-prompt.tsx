/**
 * The approval prompt: only `yes` proceeds. ConfirmPrompt is a pure view of
 * the question and what has been typed; renderConfirm reads the keys.
 */
import { Box, Text, render, useApp, useInput } from 'ink';
import { useState } from 'react';

export interface ConfirmPromptProps {
  question: string;
  value: string;
  /** Set once Enter was pressed: the prompt shows the answer without a cursor. */
  answered?: boolean;
}

export function ConfirmPrompt({ question, value, answered }: ConfirmPromptProps) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>{question}</Text>
      <Text>  Only &apos;yes&apos; will be accepted to approve.</Text>
      <Text>
        {'  '}Enter a value: {value}
        {answered ? '' : <Text inverse> </Text>}
      </Text>
    </Box>
  );
}

/** The prompt with its key handling: Enter answers what was typed; Ctrl-C and Esc answer nothing. */
export function ConfirmInput({ question, onAnswer }: { question: string; onAnswer: (value: string) => void }) {
  const { exit } = useApp();
  const [value, setValue] = useState('');
  const [answered, setAnswered] = useState(false);
  useInput((input, key) => {
    if (answered) return;
    if (key.return || (key.ctrl && input === 'c') || key.escape) {
      const answer = key.return ? value : '';
      setAnswered(true);
      onAnswer(answer);
      exit();
    } else if (key.backspace || key.delete) {
      setValue((v) => v.slice(0, -1));
    } else if (!key.ctrl && !key.meta && input) {
      setValue((v) => v + input);
    }
  });
  return <ConfirmPrompt question={question} value={value} answered={answered} />;
}

export interface TerminalIo {
  stdout: NodeJS.WriteStream | NodeJS.WritableStream;
  stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
}

/** Asks the question on the terminal; resolves true only for `yes` (Ctrl-C and Esc answer no). */
export async function renderConfirm(io: TerminalIo, question: string): Promise<boolean> {
  let answer = '';
  const instance = render(<ConfirmInput question={question} onAnswer={(v) => (answer = v)} />, {
    stdout: io.stdout as NodeJS.WriteStream,
    stdin: io.stdin as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await instance.waitUntilExit();
  return answer.trim() === 'yes';
}
