export { type StageAnswerOptions, stageAnswerHandler } from './stage-answer-handler';
