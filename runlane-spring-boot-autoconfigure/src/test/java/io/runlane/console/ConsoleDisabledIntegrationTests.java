package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.servlet.function.RouterFunction;

/** S-CO-1: without {@code runlane.console.enabled=true} a web application serves no console. */
@DirtiesContext
@SpringBootTest(classes = ConsoleTestApplication.class)
class ConsoleDisabledIntegrationTests {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_disabled");
    }

    @Autowired
    private WebApplicationContext context;

    @Test
    void theConsoleIsDisabledByDefault() throws Exception {
        MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

        mvc.perform(get("/runlane/")).andExpect(status().isNotFound());
        mvc.perform(get("/runlane/api/overview")).andExpect(status().isNotFound());
        mvc.perform(get("/runlane/js/app.js")).andExpect(status().isNotFound());
        assertThat(((ApplicationContext) context).getBeanNamesForType(RouterFunction.class))
                .isEmpty();
    }
}
