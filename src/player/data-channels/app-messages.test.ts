import { describe, expect, it } from 'vitest';
import { parseAppMessage } from './app-messages';

describe('parseAppMessage', () => {
  it('reads an event with its payload', () => {
    expect(
      parseAppMessage('{"event_type":"openedStageResult","payload":{"result":"success","url":"a.usd"}}'),
    ).toEqual({ event_type: 'openedStageResult', payload: { result: 'success', url: 'a.usd' } });
  });

  it('gives an empty payload when it is missing', () => {
    expect(parseAppMessage('{"event_type":"loadingStateQuery"}')).toEqual({
      event_type: 'loadingStateQuery',
      payload: {},
    });
  });

  it('ignores what is not an event', () => {
    expect(parseAppMessage('not json')).toBeUndefined();
    expect(parseAppMessage('{"payload":{}}')).toBeUndefined();
    expect(parseAppMessage(new ArrayBuffer(2))).toBeUndefined();
    expect(parseAppMessage('null')).toBeUndefined();
  });
});
