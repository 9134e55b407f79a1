import { base64Bytes, requestView } from './request-view';

describe('requestView', () => {
  it("shows an image as its type and size, never its bytes (debug events and traces stay small)", () => {
    const data = Buffer.alloc(70, 7).toString('base64');
    const view = requestView({
      model: { provider: 'openai', modelId: 'gpt-4o' },
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What is this?', images: [{ mediaType: 'image/png', data }] }],
    });
    expect(view.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is this?', images: [{ mediaType: 'image/png', data: '[70 bytes]' }] },
    ]);
    expect(JSON.stringify(view)).not.toContain(data);
  });

  it.each([['', 0], ['YQ==', 1], ['YWI=', 2], ['YWJj', 3]])('base64Bytes(%j) is %i', (data, bytes) => {
    expect(base64Bytes(data)).toBe(bytes);
  });
});
