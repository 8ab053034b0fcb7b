// One turn of the event loop, so pending messages and input run between slices of long work
// (training steps, the sweep's lengths). Not setTimeout(0): browsers wait at least 4 ms for a
// timeout nested more than five deep, which a loop yielding every 50 ms pays each time (idle
// time on every slice). A MessageChannel message is not clamped. In Node a
// port listening would keep the process alive, so setImmediate there.

function channelYield() {
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()();
  return () => new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

/** A promise resolved on a later turn of the event loop. */
export const yieldToEventLoop = typeof setImmediate === 'function' ? () => new Promise((resolve) => setImmediate(resolve))
  : typeof MessageChannel === 'function' ? channelYield()
    : () => new Promise((resolve) => setTimeout(resolve, 0));
