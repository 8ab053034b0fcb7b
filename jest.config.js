export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['<rootDir>/tests/js/**/*.test.js', '<rootDir>/tests/browser/**/*.test.js', '<rootDir>/tests/package/**/*.test.js'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 60000,
  maxWorkers: 2,
};
