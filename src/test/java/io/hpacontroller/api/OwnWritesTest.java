package io.hpacontroller.api;

import io.hpacontroller.core.port.ApiException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Read-your-own-write over a cache, as the scale and the status ports use it. */
class OwnWritesTest {

    /** An object as a cache or the API holds it. */
    private record Copy(String resourceVersion, String from) {
    }

    private static final Function<Copy, String> VERSION = Copy::resourceVersion;

    private final OwnWrites<String> own = new OwnWrites<>();
    /** What the API answers a read with, and how often it was asked. */
    private Copy onTheApi = new Copy("7", "api");
    private ApiException readFailure;
    private final List<String> reads = new ArrayList<>();

    private Copy read() throws ApiException {
        reads.add("GET");
        if (readFailure != null) {
            throw readFailure;
        }
        return onTheApi;
    }

    private Copy current(Copy cached) throws ApiException {
        return own.current("ns/web", cached, VERSION, this::read);
    }

    @Test
    void withoutAWriteTheCacheIsRead() throws ApiException {
        Copy cached = new Copy("5", "cache");

        assertThat(current(cached)).isSameAs(cached);
        assertThat(own.holds("ns/web", "5")).isTrue();
        assertThat(reads).isEmpty();
        assertThat(own.size()).isZero();
    }

    @Test
    void afterAWriteTheApiIsReadUntilTheCacheHoldsItsVersion() throws ApiException {
        own.wrote("ns/web", "7");

        Copy behind = new Copy("5", "cache");
        assertThat(own.holds("ns/web", "5")).as("the cache is behind our write").isFalse();
        assertThat(current(behind)).as("the API's, not the stale cache's").isEqualTo(onTheApi);
        assertThat(current(behind)).isEqualTo(onTheApi);
        assertThat(reads).hasSize(2);

        Copy caughtUp = new Copy("7", "cache");
        assertThat(own.holds("ns/web", "7")).isTrue();
        assertThat(current(caughtUp)).as("the cache holds our write").isSameAs(caughtUp);
        assertThat(own.size()).as("caught up: nothing is tracked").isZero();
        assertThat(current(behind)).as("and the cache is read again, whatever it holds").isSameAs(behind);
        assertThat(reads).hasSize(2);
    }

    @Test
    void aLaterVersionReadFromTheApiIsTheOneToWaitFor() throws ApiException {
        own.wrote("ns/web", "7");
        onTheApi = new Copy("9", "api"); // someone wrote after us

        assertThat(current(new Copy("5", "cache"))).isEqualTo(onTheApi);
        assertThat(current(new Copy("7", "cache"))).as("our version is no longer the latest").isEqualTo(onTheApi);
        Copy latest = new Copy("9", "cache");
        assertThat(current(latest)).isSameAs(latest);
        assertThat(own.size()).isZero();
    }

    @Test
    void aWriteWhoseAnswerIsUnknownIsCaughtUpOnlyThroughARead() throws ApiException {
        own.wrote("ns/web", null);
        assertThat(own.holds("ns/web", "")).as("an unknown version matches no copy").isFalse();
        assertThat(own.holds("ns/web", null)).isFalse();

        assertThat(current(new Copy("5", "cache"))).isEqualTo(onTheApi);
        Copy caughtUp = new Copy("7", "cache");
        assertThat(current(caughtUp)).as("the version the read found").isSameAs(caughtUp);
        assertThat(own.size()).isZero();
    }

    @Test
    void aCacheWithoutTheObjectIsReadFromTheApi() throws ApiException {
        assertThat(current(null)).isEqualTo(onTheApi);
        own.wrote("ns/web", "7");
        assertThat(current(null)).isEqualTo(onTheApi);
        assertThat(reads).hasSize(2);
    }

    @Test
    void aFailedReadKeepsTheObjectBehind() {
        own.wrote("ns/web", "7");
        readFailure = new ApiException("connection refused");

        assertThatThrownBy(() -> current(new Copy("5", "cache"))).isSameAs(readFailure);
        assertThat(own.holds("ns/web", "5")).isFalse();
        assertThat(own.size()).isOne();
    }

    @Test
    void aDeletedObjectIsNoLongerTracked() throws ApiException {
        own.wrote("ns/web", "7");
        readFailure = new ApiException.NotFound("horizontalpodautoscalers \"web\" not found");

        assertThatThrownBy(() -> current(new Copy("5", "cache"))).isSameAs(readFailure);
        assertThat(own.size()).as("the object is gone: nothing to catch up with").isZero();

        own.wrote("ns/web", "8");
        own.wrote("ns/other", "3");
        own.forget("ns/web");
        assertThat(own.holds("ns/web", "5")).isTrue();
        assertThat(own.holds("ns/other", "2")).as("one key forgotten, not the others").isFalse();
        assertThat(own.size()).isOne();
    }
}
