package io.hpacontroller.testing;

import io.hpacontroller.core.HpaKey;

/** Tests spell HPA keys in their wire form: {@code key("ns/name")}. */
public final class Keys {

    private Keys() {
    }

    /** The key whose wire form is {@code wireForm} ("namespace/name", or "group/namespace/name"). */
    public static HpaKey key(String wireForm) {
        return HpaKey.parse(wireForm);
    }
}
