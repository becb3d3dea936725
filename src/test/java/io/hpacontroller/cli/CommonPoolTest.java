package io.hpacontroller.cli;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

class CommonPoolTest {

    @Test
    void twoThreadsWhereTheJvmWouldGiveTheCommonPoolOne() {
        Properties twoCores = new Properties();
        CommonPool.atLeastTwo(twoCores, 2);
        assertThat(twoCores.getProperty(CommonPool.PROPERTY)).isEqualTo("2");
        Properties oneCore = new Properties();
        CommonPool.atLeastTwo(oneCore, 1);
        assertThat(oneCore.getProperty(CommonPool.PROPERTY)).isEqualTo("2");
    }

    @Test
    void aGivenParallelismAndLargerMachinesAreLeftAlone() {
        Properties given = new Properties();
        given.setProperty(CommonPool.PROPERTY, "1");
        CommonPool.atLeastTwo(given, 2);
        assertThat(given.getProperty(CommonPool.PROPERTY)).isEqualTo("1");
        Properties fourCores = new Properties();
        CommonPool.atLeastTwo(fourCores, 4);
        assertThat(fourCores.getProperty(CommonPool.PROPERTY)).isNull();
    }
}
