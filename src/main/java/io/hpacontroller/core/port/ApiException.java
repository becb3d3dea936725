package io.hpacontroller.core.port;

/** A call through a port failed. The message is shown to users in events and conditions. */
public class ApiException extends Exception {

    public ApiException(String message) {
        super(message);
    }

    public ApiException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The object changed since it was read (HTTP 409): re-read and try again. */
    public static class Conflict extends ApiException {
        public Conflict(String message) {
            super(message);
        }
    }

    /** The object does not exist (HTTP 404). */
    public static class NotFound extends ApiException {
        public NotFound(String message) {
            super(message);
        }
    }
}
