package io.hpacontroller.sim.scenario;

/**
 * When metrics become visible, and what they cover. A scraper (metrics-server, or a Prometheus adapter)
 * scrapes at {@code phase + k * interval}; a scrape at time T returns data whose newest point is
 * {@code delay} old, averaged over {@code window}: the sample covers {@code [T - delay - window, T - delay]}
 * and carries the timestamp {@code T - delay}. Between scrapes the API serves the last one. So a change in
 * load shows up in the metrics API between {@code delay} and {@code delay + interval} later, smeared over
 * {@code window}.
 *
 * @param intervalMillis time between scrapes (metrics-server {@code --metric-resolution})
 * @param windowMillis   averaging window of one sample
 * @param delayMillis    age of the newest data at a scrape
 * @param phaseMillis    time of one scrape (the others follow every interval, before and after it)
 */
public record MetricsPipeline(long intervalMillis, long windowMillis, long delayMillis, long phaseMillis) {

    /** The time of the newest scrape at or before {@code now}. */
    public long lastScrapeAt(long now) {
        return phaseMillis + Math.floorDiv(now - phaseMillis, intervalMillis) * intervalMillis;
    }

    /** The end (and timestamp) of the sample the API serves at {@code now}. */
    public long sampleEndAt(long now) {
        return lastScrapeAt(now) - delayMillis;
    }

    /** How far back the model must remember usage to answer a query. */
    public long horizonMillis() {
        return intervalMillis + delayMillis + windowMillis;
    }
}
