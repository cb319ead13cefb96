/**
 * The approval prompt: only `yes` proceeds. ConfirmPrompt is a pure view of
 * the question and what has been typed; renderConfirm reads the keys.
 */
import { useEffect, useRef, useState } from 'react';
import { ink, loadInk } from './ink.js';

export interface ConfirmPromptProps {
  question: string;
  value: string;
  /** Set once Enter was pressed: the prompt shows the answer without a cursor. */
  answered?: boolean;
}

export function ConfirmPrompt({ question, value, answered }: ConfirmPromptProps) {
  const { Box, Text } = ink();
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>{question}</Text>
      <Text>{'  '}Only &apos;yes&apos; will be accepted to approve.</Text>
      <Text>
        {'  '}Enter a value: {value}
        {answered ? '' : <Text inverse> </Text>}
      </Text>
    </Box>
  );
}

/**
 * The prompt with its key handling: Enter answers what was typed; Ctrl-C and Esc answer nothing.
 * Keys can arrive in one chunk (`yes\r` when pasted or typed by a program), so a newline inside the
 * input ends the answer too.
 */
export function ConfirmInput({ question, onAnswer }: { question: string; onAnswer: (value: string) => void }) {
  const { useApp, useInput } = ink();
  const { exit } = useApp();
  const typed = useRef('');
  const [value, setValue] = useState('');
  const [answered, setAnswered] = useState(false);
  const answer = (text: string) => {
    setValue(text);
    setAnswered(true);
    onAnswer(text);
  };
  // Leave only after the answer has been drawn, so the terminal keeps what was typed.
  useEffect(() => {
    if (answered) exit();
  }, [answered, exit]);
  useInput((input, key) => {
    if (answered) return;
    if ((key.ctrl && input === 'c') || key.escape) return answer('');
    if (key.return) return answer(typed.current);
    if (key.backspace || key.delete) typed.current = typed.current.slice(0, -1);
    else if (!key.ctrl && !key.meta && input) {
      const newline = input.search(/[\r\n]/);
      if (newline !== -1) return answer(typed.current + input.slice(0, newline));
      typed.current += input;
    }
    setValue(typed.current);
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
  const { render } = await loadInk();
  const instance = render(<ConfirmInput question={question} onAnswer={(v) => (answer = v)} />, {
    stdout: io.stdout as NodeJS.WriteStream,
    stdin: io.stdin as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await instance.waitUntilExit();
  return answer.trim() === 'yes';
}
