import { describe, expect, it } from 'vitest';
import { demuxLogs, tailText } from './output';

const frame = (stream: number, text: string) => {
  const body = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
};

describe('demuxLogs', () => {
  it('joins stdout and stderr frames in order', () => {
    expect(demuxLogs(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n'), frame(1, 'end')])).toString()).toBe(
      'out\nerr\nend',
    );
  });

  it('passes through output that is not multiplexed', () => {
    expect(demuxLogs(Buffer.from('plain text output')).toString()).toBe('plain text output');
  });
});

describe('tailText', () => {
  it('keeps the last bytes, starting on a character boundary', () => {
    expect(tailText(Buffer.from('abcdef'), 3)).toBe('def');
    expect(tailText(Buffer.from('aé'), 1)).toBe('');
    expect(tailText(Buffer.from('xé'), 2)).toBe('é');
    expect(tailText(Buffer.alloc(0))).toBeNull();
    expect(tailText(Buffer.from('a\u0000b'))).toBe('a\uFFFDb');
  });
});
