// Seeded task generators (implemented in C++, so native and wasm training
// see the same batches).
import * as v from './validate.js';
import { scope, check } from './memory.js';

export const TASKS = ['copy'];

export function createTaskApi(mod) {
  const registry = new FinalizationRegistry((handle) => mod.taskDelete(handle));

  function taskArgs(o) {
    const kind = TASKS.indexOf(v.oneOf('task', o.task ?? 'copy', TASKS));
    const symbols = v.integer('symbols', o.symbols ?? 8, 1, 65000);
    const variableLength = v.boolean('variableLength', o.variableLength ?? false);
    return { kind, symbols, variableLength };
  }

  /** {vocabSize, minLength} of a task configuration. */
  function taskInfo(opts) {
    const o = v.options('taskInfo options', opts);
    const { kind, symbols, variableLength } = taskArgs(o);
    return scope(mod, (m) => {
      const out = m.put('i32', 2);
      check(mod, mod.taskInfo(kind, symbols, variableLength, out));
      const [vocabSize, minLength] = m.take('i32', out, 2);
      return { vocabSize, minLength };
    });
  }

  function createTask(opts) {
    const o = v.options('createTask options', opts);
    v.knownKeys('createTask options', o, ['task', 'symbols', 'variableLength', 'seed']);
    const { kind, symbols, variableLength } = taskArgs(o);
    const seed = v.integer('seed', o.seed ?? 1, 0, Number.MAX_SAFE_INTEGER);
    const info = taskInfo(o);
    let handle = scope(mod, (m) => {
      const out = m.put('i32', 1);
      check(mod, mod.taskCreate(kind, symbols, variableLength, seed, out));
      return mod.HEAPU32[out / 4];
    });
    const task = {
      ...info,
      task: TASKS[kind],
      /** A fresh batch: tokens and targets, Int32Array(batch*length) each (-1 = not scored). */
      sample({ batch = 1, length } = {}) {
        if (!handle) throw new TypeError('this task has been deleted');
        v.integer('batch', batch, 1, 4096);
        v.integer('length', length, info.minLength, 16384);
        const n = v.elementBudget('sample(batch*length)', batch * length);
        return scope(mod, (m) => {
          const pt = m.put('i32', n), pg = m.put('i32', n);
          check(mod, mod.taskSample(handle, batch, length, pt, pg));
          return { tokens: m.take('i32', pt, n), targets: m.take('i32', pg, n) };
        });
      },
      delete() {
        if (!handle) return;
        registry.unregister(task);
        mod.taskDelete(handle);
        handle = 0;
      },
    };
    registry.register(task, handle, task);
    return task;
  }

  return { createTask, taskInfo };
}
