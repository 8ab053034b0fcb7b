export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['<rootDir>/tests/js/**/*.test.js', '<rootDir>/tests/browser/**/*.test.js', '<rootDir>/tests/package/**/*.test.js'],
  // The bundler suite (tests/package/bundlers.test.js) runs with `npm run test:bundlers`: after the figures
  // merge its explorer-page checks stalled intermittently here (see the issue-12 note), so it is not yet part of npm test.
  testPathIgnorePatterns: process.env.POSENC_BUNDLERS === '1' ? ['/node_modules/'] : ['/node_modules/', '/tests/package/bundlers\\.test\\.js$'],
  testTimeout: 60000,
  maxWorkers: 2,
};
