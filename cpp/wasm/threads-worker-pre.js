// Opens posenc-lm-simd-mt.worker.js, the script each of the threaded module's Workers starts with (CMakeLists.txt
// puts it in front of Emscripten's). Under Node it loads as an ES module: Node's built-ins through
// process.getBuiltinModule, and no __filename.
var require = typeof process == 'object' && typeof process.getBuiltinModule == 'function' ? (name) => process.getBuiltinModule(name) : undefined, __filename = '';
