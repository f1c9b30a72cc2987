export { bootstrapStatistic, pairedMeanChange, type StatisticInterval } from './stats/bootstrap-statistic';
export { cohenKappa, type PairAgreement } from './stats/cohen-kappa';
export { kendallTauB } from './stats/kendall-tau';
export { krippendorffAlphaNominal } from './stats/krippendorff-alpha';
export { normalQuantile, type ShareInterval, wilsonInterval } from './stats/share-interval';
