// The reader's text file in the model view (issue 42, item 4): UTF-8 text becomes the passage as it is; a file that is
// not UTF-8 text, or one over the size limit, is refused with one sentence that names it. (The browsers' own file
// choosing is in tests/browser/lm-text.test.js.)
import { readTextFile, TEXT_FILE_MAX } from '../../web/app/lm/model-view.js';

test('UTF-8 text is read as it is, multi-byte characters included', async () => {
  const text = 'Ünïcödé story — “quoted”, 日本語.\nSecond line.';
  expect(await readTextFile(new File([text], 'story.txt'))).toBe(text);
  expect(await readTextFile(new File([''], 'empty.txt'))).toBe('');
});

test('bytes that are not UTF-8, and a file over the limit, are refused by name', async () => {
  await expect(readTextFile(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe])], 'image.png'))).rejects
    .toThrow(new RangeError('image.png is not UTF-8 text, so it cannot be the passage.'));
  const big = new File([new Uint8Array(TEXT_FILE_MAX + 1).fill(97)], 'book.txt');
  await expect(readTextFile(big)).rejects.toThrow(new RangeError('book.txt is 4,194,305 bytes; a text file of at most 4,194,304 bytes (4 MB) can be the passage.'));
  expect(await readTextFile(new File([new Uint8Array(TEXT_FILE_MAX).fill(97)], 'just.txt'))).toHaveLength(TEXT_FILE_MAX);
});
