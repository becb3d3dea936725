package io.hpacontroller.ops;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.hpacontroller.core.HpaKey;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * JSON of the decision traces and of what the decisions endpoint serves: the records' fields as they are,
 * enums by their text ("flag", "SCALE_UP"), an HPA's key by its wire form ("namespace/name"), a number that is not one (a failed metric's value) as null. Instants (the
 * records' {@code long} fields named {@code time}, {@code timestamp}, {@code at}, {@code since} or ending in {@code Since},
 * or ending in {@code At}, kept as epoch milliseconds) are RFC 3339 text ({@code "2026-11-28T02:15:00.123Z"}), null when
 * unknown (0); a replica count, metric index or control's duration the records hold as -1 for "none" is null. Read back
 * the same way.
 */
public final class DecisionsJson {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new SimpleModule().addSerializer(double.class, new FiniteDouble()).addSerializer(Double.class, new FiniteDouble())
                    .setSerializerModifier(new InstantsAndNones()).addDeserializer(long.class, new LongOrInstant(-1))
                    .addDeserializer(int.class, new IntOrNone())
                    .addSerializer(HpaKey.class, ToStringSerializer.instance).addDeserializer(HpaKey.class, new KeyText()))
            .enable(SerializationFeature.WRITE_ENUMS_USING_TO_STRING)
            .enable(DeserializationFeature.READ_ENUMS_USING_TO_STRING)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private DecisionsJson() {
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON: " + e.getMessage(), e);
        }
    }

    public static String writePretty(Object value) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Reads what {@link #write} wrote.
     *
     * @throws IOException when the text is not JSON of that type
     */
    public static <T> T read(String json, Class<T> type) throws IOException {
        return MAPPER.readValue(json, type);
    }

    static boolean isInstant(String property) {
        return property.equals("time") || property.equals("timestamp") || property.equals("at") || property.equals("since")
                || property.endsWith("Since") || property.endsWith("At");
    }

    /** The fields the records hold as -1 for "none": replica counts, the selected metric's index, a control's own duration. */
    static boolean mayBeNone(String property) {
        return property.equals("replicas") || property.endsWith("Replicas") || property.equals("selectedMetric") || property.endsWith("Millis");
    }

    /** Instants as RFC 3339 text, -1 as null, in the records' long and int fields. */
    private static final class InstantsAndNones extends BeanSerializerModifier {
        @Override
        public List<BeanPropertyWriter> changeProperties(SerializationConfig config, BeanDescription bean, List<BeanPropertyWriter> properties) {
            for (BeanPropertyWriter p : properties) {
                Class<?> type = p.getType().getRawClass();
                if (type == long.class && isInstant(p.getName())) {
                    p.assignSerializer(new Written(true));
                } else if ((type == long.class || type == int.class) && mayBeNone(p.getName())) {
                    p.assignSerializer(new Written(false));
                }
            }
            return properties;
        }
    }

    /** An instant (epoch milliseconds) as RFC 3339 text, 0 as null; or a number, -1 as null. */
    private static final class Written extends StdSerializer<Object> {
        private final boolean instant;

        Written(boolean instant) {
            super(Object.class);
            this.instant = instant;
        }

        @Override
        public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            long v = ((Number) value).longValue();
            if (instant ? v <= 0 : v == -1) {
                gen.writeNull();
            } else if (instant) {
                gen.writeString(Instant.ofEpochMilli(v).toString());
            } else {
                gen.writeNumber(v);
            }
        }
    }

    /** An HPA's key from its wire form ({@link HpaKey#toString}). */
    private static final class KeyText extends StdDeserializer<HpaKey> {
        KeyText() {
            super(HpaKey.class);
        }

        @Override
        public HpaKey deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return HpaKey.parse(p.getValueAsString());
        }
    }

    /** A long: a number, RFC 3339 text (an instant, to epoch milliseconds), or null: {@code none} (0 for an instant). */
    private static final class LongOrInstant extends StdDeserializer<Long> implements ContextualDeserializer {
        private final long none;

        LongOrInstant(long none) {
            super(Long.class);
            this.none = none;
        }

        @Override
        public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
            return property != null && isInstant(property.getName()) ? new LongOrInstant(0) : this;
        }

        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                try {
                    return Instant.parse(p.getText()).toEpochMilli();
                } catch (DateTimeParseException e) {
                    return (Long) ctxt.handleWeirdStringValue(Long.class, p.getText(), "not an RFC 3339 time");
                }
            }
            return p.getValueAsLong();
        }

        @Override
        public Long getNullValue(DeserializationContext ctxt) {
            return none;
        }
    }

    /** An int, null as -1. */
    private static final class IntOrNone extends StdDeserializer<Integer> {
        IntOrNone() {
            super(Integer.class);
        }

        @Override
        public Integer deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return p.getValueAsInt();
        }

        @Override
        public Integer getNullValue(DeserializationContext ctxt) {
            return -1;
        }
    }

    private static final class FiniteDouble extends StdSerializer<Double> {
        FiniteDouble() {
            super(Double.class);
        }

        @Override
        public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            if (value == null || value.isNaN() || value.isInfinite()) {
                gen.writeNull();
            } else {
                gen.writeNumber(value);
            }
        }
    }
}
