package io.hpacontroller.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntConsumer;

/**
 * The exit of a controller that runs inside a test ({@code ControllerRuntime}'s when its lease is lost):
 * records the status instead of ending the test JVM, and every test after it.
 */
public final class RecordedExit implements IntConsumer {

    private final List<Integer> statuses = new CopyOnWriteArrayList<>();

    @Override
    public void accept(int status) {
        statuses.add(status);
    }

    /** The statuses asked for so far, in order. */
    public List<Integer> statuses() {
        return List.copyOf(statuses);
    }

    /** Fails the test when the controller asked to exit: it lost its lease, and its workers stopped. */
    public void assertNone(String controller) {
        if (!statuses.isEmpty()) {
            throw new AssertionError(controller + " lost its leader lease and asked to exit with status " + statuses.get(0)
                    + ": its workers stopped, so what this test waited for could not happen (was the machine too loaded to renew it?)");
        }
    }
}
