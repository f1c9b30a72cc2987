export { buildTextPdf } from './build-text-pdf';
export {
  type FakeMineruOptions,
  type FakeMineruRequest,
  type FakeMineruServer,
  startFakeMineruServer,
} from './fake-mineru-server';
export { writeSourceCase } from './write-source-case';
